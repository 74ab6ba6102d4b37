"""The engines that evaluate a `RuleProgram`: the compiled one (the default) and pyDatalog (the reference)."""

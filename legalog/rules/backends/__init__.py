"""The engines that evaluate a `RuleProgram`: clingo (the default) and pyDatalog (the reference)."""

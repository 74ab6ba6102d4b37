# pypto.program: EmptyInOutCallee
# expect-status: legal
# The Graph returns what a loop carries through `touch`, a kernel whose body is `pass`: its result has
# no return statement to trace, but it has exactly one InOut parameter, and a call's result is that
# parameter's buffer (orchestration codegen's single Out/InOut fallback, which the seed names beside
# ExplicitReturnedParamIndices). The return is the in-place spelling of `acc`, not a computed value.
import pypto.language as pl

@pl.program
class EmptyInOutCallee:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def touch(x: pl.Tensor[[128, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pass
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, x: pl.Tensor[[128, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for k, (acc_it,) in pl.range(2, init_values=(acc,)):
            acc_1: pl.Tensor[[128, 128], pl.FP32] = self.touch(x, acc_it, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
            acc_rv: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(acc_1)
        return acc_rv
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[128, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        acc_2: pl.Tensor[[128, 128], pl.FP32] = self.layer(x, acc, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        return acc_2

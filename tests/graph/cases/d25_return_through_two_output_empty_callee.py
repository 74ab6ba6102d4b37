# pypto.program: TwoOutputEmptyCallee
# expect-status: rejected
# As d24, but `touch` has two InOut parameters and no return statement: nothing says which buffer its
# result is (codegen's single Out/InOut fallback needs exactly one), so the returned value is traced to
# no parameter of the Graph, and GB107 stands.
import pypto.language as pl

@pl.program
class TwoOutputEmptyCallee:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def touch(acc: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], aux: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pass
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, aux: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], acc: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for k, (acc_it,) in pl.range(2, init_values=(acc,)):
            acc_1: pl.Tensor[[128, 128], pl.FP32] = self.touch(acc_it, aux, attrs={"arg_directions": [pl.adir.inout, pl.adir.inout]})
            acc_rv: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(acc_1)
        # expect: GB107
        return acc_rv
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, aux: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], acc: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        acc_2: pl.Tensor[[128, 128], pl.FP32] = self.layer(aux, acc, attrs={"arg_directions": [pl.adir.inout, pl.adir.inout]})
        return acc_2

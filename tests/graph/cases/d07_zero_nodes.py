# pypto.program: ZeroNodes
# expect-status: rejected
# Step D: a Graph that launches nothing records zero nodes, which the runtime refuses.
import pypto.language as pl

@pl.program
class ZeroNodes:
    # expect: GB108
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        return c__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i__idx_v0, (c__iter_v1,) in pl.range(4, init_values=(c__ssa_v0,)):
            c__ssa_v3: pl.Tensor[[128, 128], pl.FP32] = self.layer(a__ssa_v0, c__iter_v1, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
            c__rv_v2: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c__ssa_v3)
        return c__rv_v2

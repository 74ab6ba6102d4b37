# pypto.program: OutParamLegal
# expect-status: legal
# Step D: a pl.Out Graph parameter whose storage the caller supplies (output_existing) is legal (CONTRACT).
import pypto.language as pl

@pl.program
class OutParamLegal:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kcopy(a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t__ssa_v0, [0, 0], c__ssa_v0)
        return c__ssa_v0
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, c__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
        return c__ssa_v1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.layer(a__ssa_v0, c__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
        return c__ssa_v1

# pypto.program: FoldedTripLoopOffset
# expect-status: rewritten
# Step A: a trip count the parser folds (`1 + 1`) is as constant as the literal `2`: `base` is hoisted
# and `off = i * 128` in that loop is replay-invariant and stays, with no GB112.
import pypto.language as pl

@pl.program
class FoldedTripLoopOffset:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kload(a__ssa_v0: pl.Tensor[[512, 128], pl.FP32], off__ssa_v0: pl.Scalar[pl.INDEX], c__ssa_v0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [off__ssa_v0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t__ssa_v0, [0, 0], c__ssa_v0)
        return c__ssa_v0
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, w__ssa_v0: pl.Tensor[[512, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], idx__ssa_v0: pl.Scalar[pl.INDEX], base__ssa_v0: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kload(w__ssa_v0, base__ssa_v0, c__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.inout]})
        for i__idx_v0, (c__iter_v2,) in pl.range(1 + 1, init_values=(c__ssa_v1,)):
            off__ssa_v0: pl.Scalar[pl.INDEX] = i__idx_v0 * 128
            c__ssa_v4: pl.Tensor[[128, 128], pl.FP32] = self.kload(w__ssa_v0, off__ssa_v0, c__iter_v2, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.inout]})
            c__rv_v3: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c__ssa_v4)
        return c__rv_v3
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w__ssa_v0: pl.Tensor[[512, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i__idx_v0, (c__iter_v1,) in pl.range(4, init_values=(c__ssa_v0,)):
            base__graph_arg0: pl.Scalar[pl.INDEX] = i__idx_v0 * 128
            c__ssa_v3: pl.Tensor[[128, 128], pl.FP32] = self.layer(w__ssa_v0, c__iter_v1, i__idx_v0, base__graph_arg0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout, pl.adir.scalar, pl.adir.scalar]})
            c__rv_v2: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c__ssa_v3)
        return c__rv_v2

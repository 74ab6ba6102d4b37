# pypto.program: ReadOffsetView
# expect-status: rejected
# Step B: a view whose offset is read from a tensor is neither derivable nor invariant.
import pypto.language as pl

@pl.program
class ReadOffsetView:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kadd(a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        u__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(c__ssa_v0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        v__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(t__ssa_v0, u__ssa_v0)
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(v__ssa_v0, [0, 0], c__ssa_v0)
        return c__ssa_v0
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, w__ssa_v0: pl.Tensor[[512, 128], pl.FP32], sel__ssa_v0: pl.Tensor[[4], pl.INT32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        off__ssa_v0: pl.Scalar[pl.INDEX] = pl.tensor.read(sel__ssa_v0, [0])
        # expect: GB119
        wl__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.slice(w__ssa_v0, [128, 128], [off__ssa_v0, 0])
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kadd(wl__ssa_v0, c__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        return c__ssa_v1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w__ssa_v0: pl.Tensor[[512, 128], pl.FP32], sel__ssa_v0: pl.Tensor[[4], pl.INT32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.layer(w__ssa_v0, sel__ssa_v0, c__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.input, pl.adir.inout]})
        return c__ssa_v1

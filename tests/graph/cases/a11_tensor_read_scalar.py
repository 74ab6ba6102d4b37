# pypto.program: TensorReadScalar
# expect-status: rejected
# Step A: a scalar read from a tensor is neither hoistable nor replay-invariant.
import pypto.language as pl

@pl.program
class TensorReadScalar:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kload(a__ssa_v0: pl.Tensor[[512, 128], pl.FP32], off__ssa_v0: pl.Scalar[pl.INDEX], c__ssa_v0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [off__ssa_v0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t__ssa_v0, [0, 0], c__ssa_v0)
        return c__ssa_v0
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, w__ssa_v0: pl.Tensor[[512, 128], pl.FP32], sel__ssa_v0: pl.Tensor[[4], pl.INT32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        row__ssa_v0: pl.Scalar[pl.INDEX] = pl.tensor.read(sel__ssa_v0, [0])
        # expect: GB118
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kload(w__ssa_v0, row__ssa_v0, c__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.inout]})
        return c__ssa_v1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w__ssa_v0: pl.Tensor[[512, 128], pl.FP32], sel__ssa_v0: pl.Tensor[[4], pl.INT32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.layer(w__ssa_v0, sel__ssa_v0, c__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.input, pl.adir.inout]})
        return c__ssa_v1

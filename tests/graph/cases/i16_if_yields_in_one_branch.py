# pypto.program: IfYieldsInOneBranch
# expect-status: rejected
# IR414: an `if` whose branches do not yield the same values. PyPTO's parser gives the `if` the
# results either branch yields, so a branch without that yield leaves them unset on its path: SSAVerify
# calls it MISSING_YIELD / YIELD_COUNT_MISMATCH and orchestration codegen refuses it.
import pypto.language as pl

@pl.program
class IfYieldsInOneBranch:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kload(a: pl.Tensor[[512, 128], pl.FP32], off: pl.Scalar[pl.INDEX], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [off, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], c)
        return c
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        # expect: IR414
        if 0 < n:
            c_1: pl.Tensor[[128, 128], pl.FP32] = self.kload(w, n, c)
            c_2: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c_1)
        # expect: IR414
        if 1 < n:
            c_3: pl.Tensor[[128, 128], pl.FP32] = self.kload(w, 1, c_2)
            c_4: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c_3)
        else:
            c_5: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c_2)
        return c_4

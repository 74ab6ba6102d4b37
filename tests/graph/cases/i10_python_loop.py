# pypto.program: PythonLoop
# expect-status: rejected
# IR411: a `for` over a Python value (here a scalar parameter) instead of `pl.range(...)`: PyPTO's parser refuses it.
import pypto.language as pl

@pl.program
class PythonLoop:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kload(a: pl.Tensor[[512, 128], pl.FP32], off: pl.Scalar[pl.INDEX], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [off, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], c)
        return c
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], offs: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        # expect: IR411
        for off in offs:
            c_2: pl.Tensor[[128, 128], pl.FP32] = self.kload(w, off, c)
        return c

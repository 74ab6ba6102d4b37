# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def k(a: pl.Tensor[[64, 128], pl.FP32], o: pl.Out[pl.Tensor[[64, 128], pl.FP32]], r: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 128], pl.FP32]:
        t: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
        o: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(t, [0, 0], o)
        return o
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], y: pl.Out[pl.Tensor[[64, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 128], pl.FP32]:
        b: pl.Scalar[pl.INDEX] = n * 2
        for i in pl.range(4):
            z: pl.Tensor[[64, 128], pl.FP32] = self.k(x, y, i)
            b: pl.Scalar[pl.INDEX] = b + i
            c: pl.Scalar[pl.INDEX] = b + 1
        if n > 0:
            y: pl.Tensor[[64, 128], pl.FP32] = self.k(z, y, c)
            w: pl.Scalar[pl.INDEX] = n + 1
        else:
            w: pl.Scalar[pl.INDEX] = n + 2
            q: pl.Scalar[pl.INDEX] = 3
        y: pl.Tensor[[64, 128], pl.FP32] = self.k(x, y, w)
        return y

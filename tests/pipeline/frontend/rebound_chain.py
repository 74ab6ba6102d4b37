# pypto.program: ReboundChain
import pypto.language as pl

@pl.program
class ReboundChain:
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def step(self, x: pl.Tensor[[1024, 128], pl.FP32], y: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], idx: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        off: pl.Scalar[pl.INDEX] = idx * 128
        off: pl.Scalar[pl.INDEX] = off + 64
        lim: pl.Scalar[pl.INDEX] = off + 1
        with pl.at(level=pl.Level.CORE_GROUP):
            a: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [off, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
            b: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [lim, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
            c: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, b)
            y: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c, [0, 0], y)
        return y
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[1024, 128], pl.FP32], y: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i in pl.range(4):
            y: pl.Tensor[[128, 128], pl.FP32] = self.step(x, y, i)
        return y

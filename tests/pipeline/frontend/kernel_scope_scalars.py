# pypto.program: KernelScopeScalars
import pypto.language as pl

@pl.program
class KernelScopeScalars:
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def win(self, x: pl.Tensor[[1024, 128], pl.FP32], y: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], idx: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            off: pl.Scalar[pl.INDEX] = idx * 128
            a: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [off, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
            y: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(a, [0, 0], y)
        with pl.at(level=pl.Level.CORE_GROUP):
            off: pl.Scalar[pl.INDEX] = idx * 64
            b: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [off, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
            y: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(b, [64, 0], y)
        return y
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[1024, 128], pl.FP32], y: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i in pl.range(4):
            y: pl.Tensor[[128, 128], pl.FP32] = self.win(x, y, i)
        return y

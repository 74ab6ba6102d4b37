# pypto.program: SpmdScopesInGraph
import pypto.language as pl

@pl.program
class SpmdScopesInGraph:
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def g(self, x: pl.Tensor[[1024, 128], pl.FP32], y: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.spmd(4, name_hint="fixed"):
            with pl.at(level=pl.Level.CORE_GROUP):
                a: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
                y: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(a, [0, 0], y)
        with pl.spmd(n, name_hint="dyn"):
            b: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [64, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
            y: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(b, [64, 0], y)
        return y
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[1024, 128], pl.FP32], y: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i in pl.range(4):
            y: pl.Tensor[[128, 128], pl.FP32] = self.g(x, y, i)
        return y

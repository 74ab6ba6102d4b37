# pypto.program: SpmdScopeKernelCall
import pypto.language as pl

@pl.program
class SpmdScopeKernelCall:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1024, 128], pl.FP32], y: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        a: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Vec)
        y: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(a, [0, 0], y)
        return y
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def g(self, x: pl.Tensor[[1024, 128], pl.FP32], y: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.spmd(4):
            y: pl.Tensor[[128, 128], pl.FP32] = self.k(x, y)
        y: pl.Tensor[[128, 128], pl.FP32] = self.k(x, y)
        return y
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[1024, 128], pl.FP32], y: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        y: pl.Tensor[[128, 128], pl.FP32] = self.g(x, y)
        return y

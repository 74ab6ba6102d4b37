# pypto.program: AsyncGraph
# expect-status: rejected
# IR408: an `async def` is a coroutine: PyPTO's parser reads only a plain `def` as a function, so the
# Graph is named as what it is, not reported as a function the program does not define.
import pypto.language as pl

@pl.program
class AsyncGraph:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kload(a: pl.Tensor[[512, 128], pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], c)
        return c
    # expect: IR408
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    async def layer(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        c_1: pl.Tensor[[128, 128], pl.FP32] = self.kload(w, c)
        return c_1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        c_2: pl.Tensor[[128, 128], pl.FP32] = self.layer(w, c)
        return c_2

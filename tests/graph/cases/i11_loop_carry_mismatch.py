# pypto.program: LoopCarryMismatch
# expect-status: rejected
# IR412: a loop carrying one value (`c_it`) whose yield binds two results: PyPTO's parser refuses it (iteration arguments and return variables must match).
import pypto.language as pl

@pl.program
class LoopCarryMismatch:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kload(a: pl.Tensor[[512, 128], pl.FP32], off: pl.Scalar[pl.INDEX], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [off, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], c)
        return c
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        # expect: IR412
        for i, (c_it,) in pl.range(4, init_values=(c,)):
            c_2: pl.Tensor[[128, 128], pl.FP32] = self.kload(w, i * 128, c_it)
            c_rv, c_extra = pl.yield_(c_2, c_2)
        return c_rv

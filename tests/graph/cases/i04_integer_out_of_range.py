# pypto.program: IntegerOutOfRange
# expect-status: rejected
# IR404: PyPTO's parser folds `2**62 * 4` to 2**64, which does not fit INT64.
import pypto.language as pl

@pl.program
class IntegerOutOfRange:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kload(a: pl.Tensor[[512, 128], pl.FP32], off: pl.Scalar[pl.INDEX], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [off, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], c)
        return c
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], idx: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        # expect: IR404
        base: pl.Scalar[pl.INDEX] = idx + 2**62 * 4
        c_1: pl.Tensor[[128, 128], pl.FP32] = self.kload(w, base, c, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.inout]})
        return c_1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i, (c_it,) in pl.range(4, init_values=(c,)):
            c_2: pl.Tensor[[128, 128], pl.FP32] = self.layer(w, c_it, i, attrs={"arg_directions": [pl.adir.input, pl.adir.inout, pl.adir.scalar]})
            c_rv: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c_2)
        return c_rv

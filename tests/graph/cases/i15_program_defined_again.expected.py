# pypto.program: DefinedAgain
# expect-status: rewritten
# IR415: two identical copies of one program (dumps concatenated). PyPTO's pl.parse compiles that one
# program whichever copy its decorator finds; legalog analyses it once and `fix` writes it once.
import pypto.language as pl

# expect: IR415
@pl.program
class DefinedAgain:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kload(a: pl.Tensor[[512, 128], pl.FP32], off: pl.Scalar[pl.INDEX], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [off, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], c)
        return c
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], idx: pl.Scalar[pl.INDEX], base: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        c_1: pl.Tensor[[128, 128], pl.FP32] = self.kload(w, base, c, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.inout]})
        return c_1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        base__graph_arg0: pl.Scalar[pl.INDEX] = 3 * 128
        c_2: pl.Tensor[[128, 128], pl.FP32] = self.layer(w, c, 3, base__graph_arg0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout, pl.adir.scalar, pl.adir.scalar]})
        return c_2

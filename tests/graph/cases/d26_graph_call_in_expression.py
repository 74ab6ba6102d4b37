# pypto.program: GraphCallInExpression
# expect-status: rejected
# GB123: the Graph's call sites need a new argument (the hoisted `base`), computed just before the call,
# but two of them sit inside another expression (a kernel call's argument, a yield's value) and one
# holds a kernel call among its arguments (a hoist reading that argument would run `post` again): the
# pass rewrites flat call statements, as every call is after PyPTO's FlattenCallExpr. Refused up front
# with what to do, not left for the verifier to report as a missing argument (GB115). The last call is
# flat, and is not reported.
import pypto.language as pl

@pl.program
class GraphCallInExpression:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kload(a: pl.Tensor[[512, 128], pl.FP32], off: pl.Scalar[pl.INDEX], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [off, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], c)
        return c
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def post(c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(c, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], c)
        return c
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], idx: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        base: pl.Scalar[pl.INDEX] = idx * 128
        c_1: pl.Tensor[[128, 128], pl.FP32] = self.kload(w, base, c, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.inout]})
        return c_1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        # expect: GB123
        c_1: pl.Tensor[[128, 128], pl.FP32] = self.post(self.layer(w, c, 0))
        for i, (c_it,) in pl.range(4, init_values=(c_1,)):
            # expect: GB123
            c_rv: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(self.layer(w, c_it, i))
        # expect: GB123
        c_2: pl.Tensor[[128, 128], pl.FP32] = self.layer(w, self.post(c_rv), 5)
        c_3: pl.Tensor[[128, 128], pl.FP32] = self.layer(w, c_2, 6)
        return c_3

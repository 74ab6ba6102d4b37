# pypto.program: OneTripLoopBinding
# expect-status: rewritten
# An SSA dump (no name bound twice) whose Graph binds `off` inside a one-trip loop and reads it after:
# PyPTO's IR reads it in "leak mode" (its structural UseAfterDef verifier keeps a loop body's bindings
# visible after a loop without return values; SSAForm, whose verifier would call it a scope violation,
# is not a property held where the pass runs), so the pass hoists `off` like any derived scalar. No
# frontend rule (FE401) applies to a dump already in SSA form.
import pypto.language as pl

@pl.program
class OneTripLoopBinding:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kload(a: pl.Tensor[[512, 128], pl.FP32], off: pl.Scalar[pl.INDEX], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [off, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c_1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t, [0, 0], c)
        return c
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], idx: pl.Scalar[pl.INDEX], off: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        for z in pl.range(1):
            pass
        c_1: pl.Tensor[[128, 128], pl.FP32] = self.kload(w, off, c, attrs={"arg_directions": [pl.adir.input, pl.adir.scalar, pl.adir.inout]})
        return c_1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w: pl.Tensor[[512, 128], pl.FP32], c: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i, (c_it,) in pl.range(4, init_values=(c,)):
            off__graph_arg0: pl.Scalar[pl.INDEX] = i * 128
            c_2: pl.Tensor[[128, 128], pl.FP32] = self.layer(w, c_it, i, off__graph_arg0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout, pl.adir.scalar, pl.adir.scalar]})
            c_rv: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c_2)
        return c_rv

# pypto.program: EveryFinding
# expect-status: rewritten
# One of each finding the rewrite makes: a rename deleted (GB204), a derived scalar (GB201), a view (GB202) and an allocation (GB203) hoisted.
import pypto.language as pl

@pl.program
class EveryFinding:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kcopy(a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(t__ssa_v0, [0, 0], c__ssa_v0)
        return c__ssa_v0
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def kadd(a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        t__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        u__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(c__ssa_v0, [0, 0], [128, 128], [128, 128], target_memory=pl.Mem.Vec)
        v__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(t__ssa_v0, u__ssa_v0)
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(v__ssa_v0, [0, 0], c__ssa_v0)
        return c__ssa_v0
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, w__ssa_v0: pl.Tensor[[512, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], idx__ssa_v0: pl.Scalar[pl.INDEX], tmp__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]], wl__ssa_v0: pl.Tensor[[128, 128], pl.FP32], base__ssa_v0: pl.Scalar[pl.INDEX]) -> pl.Tensor[[128, 128], pl.FP32]:
        tmp__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(wl__ssa_v0, tmp__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
        # note: the body keeps every statement that is not hoisted
        c__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kadd(tmp__ssa_v1, c__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        return c__ssa_v1
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, w__ssa_v0: pl.Tensor[[512, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i__idx_v0, (c__iter_v1,) in pl.range(4, init_values=(c__ssa_v0,)):
            base__graph_arg0: pl.Scalar[pl.INDEX] = i__idx_v0 * 128
            wl__graph_arg1: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.slice(w__ssa_v0, [128, 128], [base__graph_arg0, 0])
            tmp__graph_arg2: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            c__ssa_v3: pl.Tensor[[128, 128], pl.FP32] = self.layer(w__ssa_v0, c__iter_v1, i__idx_v0, tmp__graph_arg2, wl__graph_arg1, base__graph_arg0, attrs={"arg_directions": [pl.adir.input, pl.adir.inout, pl.adir.scalar, pl.adir.inout, pl.adir.input, pl.adir.scalar]})
            c__rv_v2: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c__ssa_v3)
        return c__rv_v2

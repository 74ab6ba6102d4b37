# pypto.program: Interleaved1069
# expect-status: rejected
# Step D: 20 creates interleaved with launches batch per statement list at 16 per node: 2 x (20 + 2) + 1024 + 1 = 1069.
import pypto.language as pl

@pl.program
class Interleaved1069:
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
    # expect: GB108
    @pl.function(type=pl.FunctionType.Graph, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def layer(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for k__idx_v0 in pl.range(2):
            t0__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t0__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t0__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t1__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t1__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t1__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t2__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t2__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t2__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t3__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t3__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t3__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t4__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t4__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t4__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t5__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t5__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t5__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t6__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t6__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t6__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t7__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t7__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t7__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t8__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t8__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t8__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t9__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t9__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t9__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t10__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t10__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t10__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t11__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t11__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t11__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t12__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t12__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t12__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t13__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t13__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t13__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t14__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t14__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t14__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t15__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t15__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t15__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t16__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t16__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t16__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t17__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t17__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t17__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t18__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t18__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t18__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
            t19__ssa_v0: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            t19__ssa_v1: pl.Tensor[[128, 128], pl.FP32] = self.kcopy(a__ssa_v0, t19__ssa_v0, attrs={"arg_directions": [pl.adir.input, pl.adir.output_existing]})
        for j__idx_v0, (c__iter_v2,) in pl.range(1024, init_values=(c__ssa_v0,)):
            c__ssa_v4: pl.Tensor[[128, 128], pl.FP32] = self.kadd(a__ssa_v0, c__iter_v2, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
            c__rv_v3: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c__ssa_v4)
        c__ssa_v5: pl.Tensor[[128, 128], pl.FP32] = self.kadd(a__ssa_v0, c__rv_v3, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
        return c__ssa_v5
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a__ssa_v0: pl.Tensor[[128, 128], pl.FP32], c__ssa_v0: pl.InOut[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        for i__idx_v0, (c__iter_v1,) in pl.range(4, init_values=(c__ssa_v0,)):
            c__ssa_v3: pl.Tensor[[128, 128], pl.FP32] = self.layer(a__ssa_v0, c__iter_v1, attrs={"arg_directions": [pl.adir.input, pl.adir.inout]})
            c__rv_v2: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(c__ssa_v3)
        return c__rv_v2

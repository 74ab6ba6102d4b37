# pypto.program: GmPipe1031
# expect-status: rejected
# Step D: batchable gm_pipe_buffer_* creates are not charged one each: 2 x ceil(40/16) + 1024 + 1 = 1031.
import pypto.language as pl

@pl.program
class GmPipe1031:
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
            gm_pipe_buffer_0: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_1: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_2: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_3: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_4: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_5: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_6: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_7: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_8: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_9: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_10: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_11: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_12: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_13: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_14: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_15: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_16: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_17: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_18: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_19: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_20: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_21: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_22: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_23: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_24: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_25: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_26: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_27: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_28: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_29: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_30: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_31: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_32: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_33: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_34: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_35: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_36: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_37: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_38: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
            gm_pipe_buffer_39: pl.Tensor[[16], pl.FP32] = pl.tensor.create([16], dtype=pl.FP32, layout=pl.TensorLayout.ND)
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

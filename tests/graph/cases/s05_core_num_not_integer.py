# pypto.program: FloatCoreNum
# expect-status: rejected
# SP304: a block count of 2.5 is no integer: nothing can prove it positive, and no runtime reads it.
import pypto.language as pl

@pl.program
class FloatCoreNum:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def stage(src__ssa_v0: pl.Tensor[[4096, 64], pl.FP32], dst__ssa_v0: pl.Out[pl.Tensor[[4096, 64], pl.FP32]]) -> pl.Tensor[[4096, 64], pl.FP32]:
        bi__ssa_v0: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        off__ssa_v0: pl.Scalar[pl.INDEX] = bi__ssa_v0 * 64
        t__ssa_v0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(src__ssa_v0, [off__ssa_v0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Vec)
        dst__ssa_v1: pl.Tensor[[4096, 64], pl.FP32] = pl.tile.store(t__ssa_v0, [off__ssa_v0, 0], dst__ssa_v0)
        return dst__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, src__ssa_v0: pl.Tensor[[4096, 64], pl.FP32], dst__ssa_v0: pl.InOut[pl.Tensor[[4096, 64], pl.FP32]]) -> pl.Tensor[[4096, 64], pl.FP32]:
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            # expect: SP304
            _submit_tmp__ssa_v0: pl.Tuple[pl.Tensor[[4096, 64], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.stage, src__ssa_v0, dst__ssa_v0, core_num=2.5)
            dst__ssa_v1: pl.Tensor[[4096, 64], pl.FP32] = _submit_tmp__ssa_v0[0]
        return dst__ssa_v1

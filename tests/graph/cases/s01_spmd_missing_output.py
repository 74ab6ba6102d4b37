# pypto.program: SpmdMissingOutput
# expect-status: rejected
# SP301: the launch leaves its Out argument to the runtime.
import pypto.language as pl

@pl.program
class SpmdMissingOutput:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def band(x: pl.Tensor[[512, 128], pl.FP32], y: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        bi: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        t: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [bi * 32, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
        y_1: pl.Tensor[[512, 128], pl.FP32] = pl.tile.store(t, [bi * 32, 0], y)
        return y
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[512, 128], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[512, 128], pl.FP32]:
        y_0: pl.Tensor[[512, 128], pl.FP32] = pl.tensor.create([512, 128], dtype=pl.FP32)
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            # expect: SP301
            r: pl.Tuple[pl.Tensor[[512, 128], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.band, x, core_num=n)
            y_1: pl.Tensor[[512, 128], pl.FP32] = r[0]
        return y_1

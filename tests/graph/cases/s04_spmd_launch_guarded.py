# pypto.program: SpmdLaunchGuarded
# expect-status: rewritten
# SP310: nothing proves n >= 1, so the launch is guarded with `if n > 0`.
import pypto.language as pl

@pl.program
class SpmdLaunchGuarded:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def band(x: pl.Tensor[[512, 128], pl.FP32], y: pl.InOut[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        bi: pl.Scalar[pl.INDEX] = pl.tile.get_block_idx()
        t: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [bi * 32, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
        y_1: pl.Tensor[[512, 128], pl.FP32] = pl.tile.store(t, [bi * 32, 0], y)
        return y
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[512, 128], pl.FP32], y: pl.InOut[pl.Tensor[[512, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[512, 128], pl.FP32]:
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            # expect: SP310
            r: pl.Tuple[pl.Tensor[[512, 128], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.band, x, y, core_num=n)
            y_1: pl.Tensor[[512, 128], pl.FP32] = r[0]
        return y_1

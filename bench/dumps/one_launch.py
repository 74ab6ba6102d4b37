# pypto.program: OneLaunch
import pypto.language as pl

@pl.program
class OneLaunch:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def band(x: pl.Tensor[[2048, 128], pl.FP32], y: pl.InOut[pl.Tensor[[2048, 128], pl.FP32]]) -> pl.Tensor[[2048, 128], pl.FP32]:
        t: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Vec)
        y: pl.Tensor[[2048, 128], pl.FP32] = pl.tile.store(t, [0, 0], y)
        return y
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[2048, 128], pl.FP32], y: pl.InOut[pl.Tensor[[2048, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[2048, 128], pl.FP32]:
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            _submit_tmp: pl.Tuple[pl.Tensor[[2048, 128], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.band, x, y, core_num=n)
            y: pl.Tensor[[2048, 128], pl.FP32] = _submit_tmp[0]
        return y

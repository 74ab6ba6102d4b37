# pypto.program: SpmdUnmappableResult
# expect-status: rejected
# SP302: a compiler GM pipe buffer the guarded launch uses is also used by a later task, so it cannot move into the positive branch.
import pypto.language as pl

@pl.program
class SpmdUnmappableResult:
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)
    def band(x: pl.Tensor[[512, 128], pl.FP32], y: pl.InOut[pl.Tensor[[512, 128], pl.FP32]], buf: pl.InOut[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        return y
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[512, 128], pl.FP32], y: pl.InOut[pl.Tensor[[512, 128], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[512, 128], pl.FP32]:
        gm_pipe_buffer_0: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.create([64, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            # expect: SP302
            r: pl.Tuple[pl.Tensor[[512, 128], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.spmd_submit(self.band, x, y, gm_pipe_buffer_0, core_num=n)
            y_1: pl.Tensor[[512, 128], pl.FP32] = r[0]
            u: pl.Tuple[pl.Tensor[[512, 128], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(self.band, x, y_1, gm_pipe_buffer_0)
            y_2: pl.Tensor[[512, 128], pl.FP32] = u[0]
        return y_2

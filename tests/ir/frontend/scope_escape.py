# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x: pl.Tensor[[64, 128], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i in pl.range(4):
            for j in pl.range(2):
                e: pl.Scalar[pl.INDEX] = n + j
        with pl.at(level=pl.Level.CORE_GROUP):
            for k in pl.range(2):
                h: pl.Scalar[pl.INDEX] = n + k
            u: pl.Scalar[pl.INDEX] = h + 1
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            for k in pl.range(2):
                h2: pl.Scalar[pl.INDEX] = n + k
        v: pl.Scalar[pl.INDEX] = h2 + u
        return e

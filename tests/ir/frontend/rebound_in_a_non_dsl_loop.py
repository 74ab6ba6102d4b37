import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Scalar[pl.INDEX], xs: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        a: pl.Scalar[pl.INDEX] = x
        for i in xs:
            a: pl.Scalar[pl.INDEX] = a + 1
        return a

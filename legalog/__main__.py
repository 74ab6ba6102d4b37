from legalog.cli import run

run()

from eidomap.cli import run

run()

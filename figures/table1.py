"""Berrar, Table 1: the group of each study whose empirical F is closest to 0.95, from stored results."""

from pathlib import Path

from _common import parse

from simstudy.outputs.published import cross_study_table, write_atomic

# declared beside the studies; each of Berrar's studies declares its row
TABLE = "berrar_table1"


def main():
    args = parse(__doc__.splitlines()[0])
    table, text = cross_study_table(TABLE, profile=args.profile, results=args.results)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "table1.md", text)
    write_atomic(out / "table1.csv", table.to_csv(index=False))
    print(text)


if __name__ == "__main__":
    main()

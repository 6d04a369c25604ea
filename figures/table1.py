"""Berrar, Table 1: the group of each study whose empirical F is closest to 0.95, from stored results."""

from pathlib import Path

from _common import parse

from simstudy.reproduce import berrar_table1


def main():
    args = parse(__doc__.splitlines()[0])
    table, text = berrar_table1(profile=args.profile, results=args.results)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "table1.md").write_text(text)
    table.to_csv(out / "table1.csv", index=False)
    print(text)


if __name__ == "__main__":
    main()

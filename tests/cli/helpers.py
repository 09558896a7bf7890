"""Running the CLI on bad input and checking the answer is an error, not a crash."""

from __future__ import annotations

from collections.abc import Sequence

from click.testing import CliRunner, Result

from meridian_table.cli.main import main


def refuse(args: Sequence[str], *names: str, code: int | None = None,
           stdin: str | None = None) -> str:
    """Run `meridian-table ARGS`; assert a clean error that names every one of ``names``.

    A clean error is a non-zero exit through click (usage error 2 or ClickException 1),
    no traceback and a message of at most a few lines. Returns the output.
    """
    result: Result = CliRunner().invoke(main, list(args), input=stdin)
    out = result.output
    assert result.exit_code != 0, f"{args} was accepted:\n{out}"
    assert isinstance(result.exception, SystemExit), (
        f"{args} crashed with {result.exception!r} instead of a clean error:\n{out}"
    )
    assert "Traceback" not in out, out
    if code is not None:
        assert result.exit_code == code, (result.exit_code, out)
    error = out[out.index("Error:"):] if "Error:" in out else out
    assert len(error.splitlines()) <= 3, f"the error is not short:\n{error}"
    for name in names:
        assert name in error, f"the error does not name {name!r}:\n{error}"
    return error

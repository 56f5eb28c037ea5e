"""Keyword arguments turned into the text the library's option parser takes (the CLI's), so that
Python and the command line accept, and refuse, exactly the same things."""
import numbers


def integer(name, value):
    """`value` as an int; TypeError naming `name` for anything else (bool included)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__} {value!r}")
    return int(value)


def option_text(name, value):
    """The CLI text of one keyword argument: integers as digits, sequences of integers joined by
    'x' (tiles) or ',' (factor lists), booleans as on/off, strings as given."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)):
        items = [integer(f"{name}[{i}]", v) for i, v in enumerate(value)]
        return (",".join if name == "factor" else "x".join)(str(v) for v in items)
    raise TypeError(f"{name}: expected an integer, a string, a boolean or a tuple of integers, "
                    f"got {type(value).__name__} {value!r}")


def plan_options(m, n, k, options):
    """The options of plan / emit: M, N, K and the keyword arguments, None ones left out."""
    given = {"m": str(integer("m", m)), "n": str(integer("n", n)), "k": str(integer("k", k))}
    for name, value in options.items():
        if value is not None:
            given[name] = option_text(name, value)
    return given

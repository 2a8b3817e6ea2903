"""Numbers for humans: sizes, bytes, times, bandwidths, percentages.

Bandwidths are shown in GB/s (10^9 byte/s, as the study's write-ups do) and
capacities in binary units (MiB), each labelled, so nobody has to guess.
"""

_BINARY = (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))
_DECIMAL = (("T", 10 ** 12), ("G", 10 ** 9), ("M", 10 ** 6), ("K", 10 ** 3))


def size_label(n):
    """An element count as people read it: the shortest exact spelling
    when its number is small (256Mi, 1M, 1000003), else binary units with
    one decimal (3840Ki -> 3.8Mi, 174763Ki -> 170.7Mi)."""
    best, mantissa = str(n), n
    for suffixes in (_BINARY, _DECIMAL):
        for suffix, scale in suffixes:
            if n >= scale and n % scale == 0:
                text = "%d%s" % (n // scale, suffix)
                if len(text) < len(best):
                    best, mantissa = text, n // scale
                break
    if mantissa < 1024 or (best == str(n) and n < 10 ** 7):
        return best
    return size_approx(n)


def size_approx(n):
    """An element count as people read it: '3.9Mi', '16Mi', '1000003'."""
    for suffix, scale in _BINARY:
        if n >= scale:
            value = n / scale
            return ("%d%s" if value == int(value) else "%.1f%s") % (
                value, suffix)
    return str(n)


def bytes_label(count):
    """Bytes in binary units: '12.0 MiB'."""
    if count is None:
        return "n/a"
    for suffix, scale in (("GiB", 1 << 30), ("MiB", 1 << 20),
                          ("KiB", 1 << 10)):
        if count >= scale:
            return "%.1f %s" % (count / scale, suffix)
    return "%d B" % count


def gbps(bandwidth):
    """byte/s -> '1234 GB/s'."""
    if bandwidth is None:
        return "n/a"
    return "%.0f GB/s" % (bandwidth / 1e9)


def gbps_number(bandwidth):
    """byte/s -> '1234' (for table cells whose header carries the unit)."""
    return "n/a" if bandwidth is None else "%.0f" % (bandwidth / 1e9)


def us(ns):
    """Nanoseconds -> microseconds with about three significant digits."""
    if ns is None:
        return "n/a"
    value = ns / 1e3
    if value >= 100:
        return "%.0f" % value
    if value >= 10:
        return "%.1f" % value
    return "%.2f" % value


def pct(value):
    return "n/a" if value is None else "%.1f %%" % value


def ratio(value):
    return "n/a" if value is None else "%.2fx" % value

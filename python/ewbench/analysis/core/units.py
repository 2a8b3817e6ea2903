"""Numbers for humans: sizes, bytes, times, bandwidths, clocks, versions.

Bandwidths are shown in GB/s (10^9 byte/s, as the study's write-ups do) and
capacities and element counts in binary units (Ki, Mi, Gi), each labelled,
so nobody has to guess.
"""

_BINARY = (("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))


def size_label(n):
    """An element count in binary units, one decimal where not whole:
    1Mi, 256Mi, 170.7Mi, 976.6Ki; plain below 1024."""
    for suffix, scale in _BINARY:
        if n >= scale:
            if n % scale == 0:
                return "%d%s" % (n // scale, suffix)
            return "%.1f%s" % (n / scale, suffix)
    return str(n)


def bytes_label(count):
    """Bytes in binary units, one decimal where not whole: '12 MiB',
    '37.5 MiB', '512 B'."""
    if count is None:
        return "n/a"
    for suffix, scale in (("GiB", 1 << 30), ("MiB", 1 << 20),
                          ("KiB", 1 << 10)):
        if count >= scale:
            value = count / scale
            if abs(value - round(value)) < 0.05:
                return "%d %s" % (round(value), suffix)
            return "%.1f %s" % (value, suffix)
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


def clock_label(khz):
    """A clock given in kHz (as CUDA reports it), in the fewest digits that
    keep it exact to the MHz: 1980000 -> '1.98 GHz', 2619000 -> '2619 MHz',
    705000 -> '705 MHz'."""
    if khz is None:
        return "n/a"
    mhz = round(khz / 1e3)
    if mhz >= 1000 and mhz % 10 == 0:
        return "%g GHz" % (mhz / 1e3)
    return "%d MHz" % mhz


def cuda_version(value):
    """CUDA's integer version (1000 x major + 10 x minor) as 'CUDA 13.0'."""
    if value is None:
        return "n/a"
    return "CUDA %d.%d" % (value // 1000, value % 1000 // 10)

"""Reading and the rules every report shares (the package map:
ewbench/analysis/__init__.py)."""

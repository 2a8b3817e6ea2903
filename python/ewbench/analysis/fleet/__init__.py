"""One run per GPU of a node or cluster, `ewbench fleet-report` (the
package map: ewbench/analysis/__init__.py)."""

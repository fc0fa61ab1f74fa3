"""Small NumPy programs bundled for the tour (`python -m minidynamo tour`) and the README."""

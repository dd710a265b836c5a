"""The results folder: the folder contract, CSV and LaTeX tables, figures."""

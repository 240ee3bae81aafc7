"""What a person sees: the widget panel, seaborn plots, tables and Spanish sentences.

A view never launches a container: it calls an experiment module's run() and renders its results.
"""

"""The benchmark's tools: its Markdown tables, profiles of the references, the labs' sweep plots."""

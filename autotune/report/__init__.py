"""Reports of a search: pandas tables and matplotlib figures from an output directory or a study."""

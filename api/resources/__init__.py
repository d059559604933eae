"""REST resources: one Blueprint per resource."""

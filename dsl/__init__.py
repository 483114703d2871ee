"""dslc: write an Ascend operator's math once as a decorated Python function."""

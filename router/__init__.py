"""The router: which path a question takes and whether it gets the verify-revise loop, by a
keyword rule or a LightGBM model trained on labelled questions."""

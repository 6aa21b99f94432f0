"""Evaluation slices: per dataset split, a *tuning* and a *report* list of question ids,
disjoint by context (or company), committed as JSON beside this module.

:mod:`.committed` reads them and narrows a split to one; :mod:`.making` deals a split's
questions into the two; :mod:`.recipes` holds how each committed pair was dealt.
"""

"""The error of a calibration procedure that ran but could not give a result worth saving."""


class CalibrationFailedError(RuntimeError):
    """A measurement refused with its reason (too few views, a board not found, a drop that missed)."""

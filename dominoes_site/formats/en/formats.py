"""English dates and times as the whole site writes them (dominoes_site/formats)."""

from dominoes_site.formats import TIME_FORMAT, date_pattern, datetime_pattern

DATE_FORMAT = SHORT_DATE_FORMAT = date_pattern("M")
DATETIME_FORMAT = SHORT_DATETIME_FORMAT = datetime_pattern("M")
__all__ = ["DATETIME_FORMAT", "DATE_FORMAT", "SHORT_DATETIME_FORMAT", "SHORT_DATE_FORMAT"]
__all__ += ["TIME_FORMAT"]

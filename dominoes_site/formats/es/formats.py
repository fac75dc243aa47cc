"""Spanish dates and times as the whole site writes them (dominoes_site/formats): months in
lower case, as Spanish writes them."""

from dominoes_site.formats import TIME_FORMAT, date_pattern, datetime_pattern

DATE_FORMAT = SHORT_DATE_FORMAT = date_pattern("b")
DATETIME_FORMAT = SHORT_DATETIME_FORMAT = datetime_pattern("b")
__all__ = ["DATETIME_FORMAT", "DATE_FORMAT", "SHORT_DATETIME_FORMAT", "SHORT_DATE_FORMAT"]
__all__ += ["TIME_FORMAT"]

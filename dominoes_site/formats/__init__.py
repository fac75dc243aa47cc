"""The site's one way of writing dates and times: "1 Dec 2026, 14:05" ("1 dic 2026, 14:05").

Django's per-language defaults differ (English writes "Dec. 1, 2026, 2:05 p.m.", which ends a
sentence in "p.m.."). Templates name a format (DATETIME_FORMAT, DATE_FORMAT, TIME_FORMAT and
their SHORT_ forms); each language's module here builds them from `date_pattern`, so a language
changes only how its month's abbreviation is written. Set in settings as FORMAT_MODULE_PATH.
"""

TIME_FORMAT = "H:i"


def date_pattern(month: str) -> str:
    """Day, abbreviated month, year: `month` is "M" ("Dec") or "b" ("dic", lower case)."""
    return f"j {month} Y"


def datetime_pattern(month: str) -> str:
    return f"{date_pattern(month)}, {TIME_FORMAT}"

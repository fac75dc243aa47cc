"""The Commissary's opening catalogue; staff change it in admin."""

from django.db import migrations

GOODS = [
    ("Soup", "Sopa", "🍜", 3, 1),
    ("Coffee", "Café", "☕", 5, 2),
    ("Honey bun", "Bollo de miel", "🍯", 4, 3),
    ("Stamp", "Sello", "✉️", 1, 4),
]


def catalogue_up(apps, schema_editor):  # type: ignore[no-untyped-def]
    Good = apps.get_model("ledger", "Good")
    for name, name_es, icon, price, position in GOODS:
        Good.objects.get_or_create(
            name=name,
            defaults={"name_es": name_es, "icon": icon, "price": price, "position": position},
        )


class Migration(migrations.Migration):
    dependencies = [("ledger", "0002_database_guards")]

    operations = [migrations.RunPython(catalogue_up, migrations.RunPython.noop)]

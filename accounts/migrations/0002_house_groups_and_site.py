"""The "Tournament organizers" group, and the site's name for e-mails."""

from django.db import migrations

ORGANIZERS = "Tournament organizers"


def forwards(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.get_or_create(name=ORGANIZERS)
    Site = apps.get_model("sites", "Site")
    Site.objects.update_or_create(
        pk=1, defaults={"domain": "localhost:8000", "name": "Dominologist"}
    )


def backwards(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Group.objects.filter(name=ORGANIZERS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("sites", "0002_alter_domain_unique"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]

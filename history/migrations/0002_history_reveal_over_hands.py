"""Reveal the seeds of hands that were already over before history kept track of it."""

from django.db import migrations


def reveal_over_hands(apps, schema_editor):  # type: ignore[no-untyped-def]
    Game = apps.get_model("tables", "Game")
    Hand = apps.get_model("tables", "Hand")
    Hand.objects.filter(
        game__status__in=["finished", "aborted"], dealt_at__isnull=False, revealed=False
    ).update(revealed=True)
    for game in Game.objects.filter(status="playing").only("pk", "state").iterator():
        deal = int(game.state.get("deal", 0))
        if game.state.get("phase") == "awaiting_deal":
            deal += 1
        Hand.objects.filter(
            game=game, dealt_at__isnull=False, revealed=False, number__lt=deal
        ).update(revealed=True)


class Migration(migrations.Migration):
    dependencies = [
        ("history", "0001_history_player_games"),
        ("tables", "0001_initial"),
    ]

    operations = [migrations.RunPython(reveal_over_hands, migrations.RunPython.noop)]

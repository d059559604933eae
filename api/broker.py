"""The API process's way to the Celery broker: it publishes tasks by name, so the HTTP adapter
never imports the workers or the bot (the application core's dispatcher calls ``send``)."""
from __future__ import annotations


def celery_send_task(broker_url: str):
    """Publish tasks by name (the API never imports the workers or the bot)."""
    from celery import Celery
    producer = Celery("tablepost-api", broker=broker_url)
    producer.conf.broker_connection_retry_on_startup = False
    producer.conf.broker_transport_options = {"max_retries": 1}

    def send(name: str, args: list, queue: str) -> None:
        producer.send_task(name, args=args, queue=queue)
    return send

-- Each agent's latest 20 score changes move onto its row (newest last), then the table goes.
UPDATE `agents` SET `score_events` = COALESCE((
  SELECT json_group_array(json_object('reason', `reason`, 'change', `change`, 'referenceType', `reference_type`, 'referenceId', `reference_id`, 'createdAt', `created_at`))
  FROM (SELECT * FROM (SELECT * FROM `score_events` WHERE `score_events`.`agent_id` = `agents`.`id` ORDER BY `created_at` DESC, `id` DESC LIMIT 20) ORDER BY `created_at`, `id`) AS `latest`
), '[]');--> statement-breakpoint
DROP TABLE `score_events`;

module github.com/actorqueue/workqueue/stress

go 1.26.0

replace github.com/actorqueue/workqueue => ../
